// curl on a simulated Linux host: HTTP over the simulated cluster network (Keystone, the config API).

import { fail, ok } from '../command-result.js';
import type { Utility } from '../shells/bash/bash-shell.js';
import type { LinuxHost } from './linux-host.js';

export function addCurl(u: Map<string, Utility>, host: LinuxHost): void {
  u.set('curl', (args, stdin) => {
    let method = 'GET';
    let body = '';
    let output: string | undefined;
    let writeOut = '';
    let url: string | undefined;
    const headers: Record<string, string> = {};
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === '-X' || a === '--request') method = args[++i] ?? method;
      else if (a === '-H' || a === '--header') {
        const [k, ...v] = (args[++i] ?? '').split(':');
        headers[(k ?? '').trim().toLowerCase()] = v.join(':').trim();
      } else if (a === '--data-binary' || a === '-d' || a === '--data') {
        const value = args[++i] ?? '';
        body = value === '@-' ? stdin : value;
        if (method === 'GET') method = 'POST';
      } else if (a === '-o' || a === '--output') output = args[++i];
      else if (a === '-w' || a === '--write-out') writeOut = args[++i] ?? '';
      else if (a === '--max-time' || a === '-m') i++;
      else if (/^-[sSfL]+$/.test(a) || a === '--silent' || a === '--show-error' || a === '--fail') continue;
      else if (a.startsWith('-')) return fail(`curl: option ${a}: is unknown (groundcrew sim)\n`, 2);
      else url = a;
    }
    if (!url) return fail('curl: no URL specified!\n', 2);
    const outcome = host.network?.request(url, { method, headers, body });
    if (!outcome || 'error' in outcome) {
      const target = new URL(url);
      return fail(`curl: (7) Failed to connect to ${target.hostname} port ${target.port || 80}: Connection refused\n`, 7);
    }
    const shown = output === '/dev/null' ? '' : outcome.body;
    return ok(shown + writeOut.replace('%{http_code}', String(outcome.status)));
  });
}
