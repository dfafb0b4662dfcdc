// The ceiling of one Node process: bare node:http answering the same fixed JSON object as the stock Express route.

const http = require('node:http');

const body = JSON.stringify({ id: 1, title: 'A fixed object', status: 'publish', start_date: '2030-01-01 10:00:00' });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
