// The baseline: a bare Express 5 app answering a fixed JSON object, as cheap as a JSON route can be on this stack.
'use strict';
const express = require('express');

const app = express();
const body = { id: 1, title: 'A fixed object', status: 'publish', start_date: '2030-01-01 10:00:00' };
app.get('/', (_req, res) => { res.json(body); });
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
