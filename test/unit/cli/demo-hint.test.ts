// The demo's hint names the CLI as the operator would type it: `groundcrew` when the installed program on the PATH
// is what runs, else `node` and the script (issue 39: it printed `node /usr/bin/groundcrew`).

import { describe, expect, it } from 'vitest';
import { cliCommand } from '../../../src/cli/demo.js';

describe('cliCommand', () => {
  it('is groundcrew for the installed program on the PATH, node SCRIPT otherwise', () => {
    expect(cliCommand('/usr/bin/groundcrew', '/usr/local/bin:/usr/bin:/bin')).toBe('groundcrew');
    expect(cliCommand('/opt/gc/node_modules/.bin/groundcrew', '/usr/bin:/bin')).toBe('node /opt/gc/node_modules/.bin/groundcrew');
    expect(cliCommand('/work/gc/dist/src/cli/main.js', '/work/gc/dist/src/cli:/usr/bin')).toBe('node /work/gc/dist/src/cli/main.js');
    expect(cliCommand('/usr/bin/groundcrew', '')).toBe('node /usr/bin/groundcrew');
  });
});
