// The one URL redaction: credentials in a source or proxy URL never survive, hosts and paths do.

import { describe, expect, it } from 'vitest';
import { redactUrls, urlRedactor } from '../../../src/source/redact-url.js';

describe('redactUrls', () => {
  it('masks the userinfo of every URL in a line, keeping scheme, host and path', () => {
    const line = "fatal: unable to access 'https://user:s3cr3t-token@git.example:8443/team/repo.git/' via http://p:pw@proxy:3128";
    expect(redactUrls(line)).toBe("fatal: unable to access 'https://***@git.example:8443/team/repo.git/' via http://***@proxy:3128");
  });

  it('takes a token with an unencoded @ whole, and stops at quotes, so a JSON line stays whole', () => {
    expect(redactUrls('{"url":"https://u:to@ken@host/r.git","n":1}')).toBe('{"url":"https://***@host/r.git","n":1}');
  });

  it('gets through a megabyte of base64-like text (every log line passes here)', () => {
    const blob = 'ab+'.repeat(350_000);
    expect(redactUrls(`${blob} https://u:p@h/`)).toBe(`${blob} https://***@h/`);
  });

  it('leaves URLs without userinfo, and e-mail addresses, alone', () => {
    const line = 'fetched http://127.0.0.1:7070/api from Jane <jane@example.com>';
    expect(redactUrls(line)).toBe(line);
  });
});

describe('urlRedactor', () => {
  it("masks a source URL's password wherever it turns up, raw or percent-decoded", () => {
    const redact = urlRedactor(['https://deploy:p%40ss-w0rd@host/repo.git']);
    expect(redact('auth failed for deploy with p@ss-w0rd (p%40ss-w0rd)')).toBe('auth failed for deploy with *** (***)');
  });

  it('takes a long user name alone over https for a token, but not ssh:// user names', () => {
    const redact = urlRedactor(['https://ghp_0123456789abcdefghij@github.com/o/r.git', 'ssh://git@host/r.git']);
    expect(redact('token ghp_0123456789abcdefghij; git fetch')).toBe('token ***; git fetch');
  });

  it('never masks short strings outside a URL (a password "abc" would mask every "abc")', () => {
    expect(urlRedactor(['https://u:abc@host/r.git'])('abcdef')).toBe('abcdef');
  });
});
