// The baseline: stock Express 5 as its documentation writes a route (express(), app.get, app.listen, nothing tuned),
// answering a fixed JSON object.

const express = require('express');

const app = express();
const body = { id: 1, title: 'A fixed object', status: 'publish', start_date: '2030-01-01 10:00:00' };
app.get('/', (_req, res) => {
  res.json(body);
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
