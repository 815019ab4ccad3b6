// Starts a lab and waits to be killed: lets a test leave leftovers the way a crashed run would.

import { Lab } from './lab.js';

const lab = await Lab.start({
  hosts: [
    { name: 'c1', os: 'linux' },
    { name: 'c2', os: 'windows' },
  ],
});
process.stdout.write(`${JSON.stringify({ prefix: lab.prefix, dir: lab.dir })}\n`);
setInterval(() => undefined, 60_000);
