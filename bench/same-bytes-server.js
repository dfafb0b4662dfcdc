// The same-bytes baseline: stock Express 5 as its documentation writes a route (express(), app.all, app.listen,
// nothing tuned), answering from memory the very bytes the service answered for each URL (its status and headers,
// Express's own default ETag), so it measures what a perfect cache could reach on this stack. The runner loads the
// answers of each scenario through POST /__same-bytes/load (a JSON file's path) before measuring it.

const fs = require('node:fs');
const express = require('express');

const app = express();
/** `METHOD path?query` → { status, headers, body }: the captured answers (bench/same-bytes.ts writes the file). */
let answers = new Map();

app.post('/__same-bytes/load', express.text(), (req, res) => {
  const entries = JSON.parse(fs.readFileSync(req.body, 'utf8'));
  answers = new Map(entries.map((e) => [`${e.method} ${e.url}`, { ...e, body: Buffer.from(e.body, 'base64') }]));
  res.json({ loaded: answers.size });
});
app.get('/__same-bytes/load', (_req, res) => {
  res.json({ loaded: answers.size }); // the runner's readiness check
});

app.all('/{*path}', (req, res) => {
  const answer = answers.get(`${req.method} ${req.originalUrl}`);
  if (!answer) return res.sendStatus(404);
  res.status(answer.status).set(answer.headers).send(answer.body);
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
