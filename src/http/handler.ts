/**
 * `Handler<'operationId'>`: an Express handler whose params, query, body and JSON response are typed from the
 * generated spec types, so a handler cannot read a parameter or answer a shape the spec does not declare.
 */
import type { Request, Response } from 'express';
import type { operations } from '../../generated/schema';

/** Operations of the spec's `webhooks` section are messages this service sends, not routes it serves. */
type OutgoingOperation = 'changeMessage';
export type OperationId = Exclude<keyof operations, OutgoingOperation>;

type Params<O extends OperationId> = operations[O]['parameters'];
type PathOf<O extends OperationId> = Params<O> extends { path: infer P } ? (P extends undefined ? object : P) : object;
type QueryOf<O extends OperationId> = Params<O> extends { query?: infer Q } ? NonNullable<Q> : object;
type BodyOf<O extends OperationId> = operations[O] extends { requestBody?: { content: infer C } }
  ? C extends { 'application/json': infer B }
    ? B
    : never
  : never;
/** The JSON answer, or the text of an answer that is only text (text/calendar, text/event-stream). */
type Json<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: { 'text/calendar': infer T } }
    ? T
    : R extends { content: { 'text/event-stream': infer T } }
      ? T
      : never;
/** The success answer (200, 201 or 202) of an operation; of each, for a union of operations. */
type SuccessOf<O extends OperationId> = O extends OperationId
  ? {
      [S in keyof operations[O]['responses']]: S extends 200 | 201 | 202 ? Json<operations[O]['responses'][S]> : never;
    }[keyof operations[O]['responses']]
  : never;

/** Distributes over a union of operations: `TypedRequest<'a' | 'b'>` is either request. */
export type TypedRequest<O extends OperationId> = O extends OperationId
  ? Request<PathOf<O>, SuccessOf<O>, Partial<BodyOf<O>>, QueryOf<O>>
  : never;
/**
 * The response whose `json`/`send` take only the operation's success answer. One handler may serve several operations
 * only if they answer the same schema: `Response<A | B>` does not accept `Response<A>`, so the table rejects it.
 */
export type TypedResponse<O extends OperationId> = Response<SuccessOf<O>>;
export type Handler<O extends OperationId> = (req: TypedRequest<O>, res: TypedResponse<O>) => Promise<void> | void;

/** One handler per operation of the spec: a missing entry fails type-checking. */
export type HandlerTable = { [O in OperationId]: Handler<O> };
