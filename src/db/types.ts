/** The database handles every layer passes around: a leaf, so that no module needs the factory for its types. */
import type { Knex } from 'knex';

export type Db = Knex;
/** What repositories run queries on: the database or an open transaction. */
export type Executor = Knex | Knex.Transaction;
