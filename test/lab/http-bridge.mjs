// Runs inside a Linux lab host's network namespace: real TCP listeners on the ports the host's modelled
// containers serve (Keystone 5000, the config API 8082, nova-api 8774), each request handed to the lab over a unix socket,
// where the host's model answers it. Real curl on other hosts talks real HTTP to this.
// argv: <lab http socket> <host address> <port>...

import { createServer, request } from 'node:http';

const [socketPath, address, ...ports] = process.argv.slice(2);
for (const port of ports) {
  createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const upstream = request(
        { socketPath, path: req.url, method: req.method, headers: { ...req.headers, 'x-gc-target': `${address}:${port}` } },
        (answer) => {
          // The model has nothing on this port (its container is not running): a refused connection.
          if (answer.statusCode === 599) return req.socket.destroy();
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => req.socket.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  }).listen(Number(port), address);
}
