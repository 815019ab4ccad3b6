// JSON in bytes every code page reads alike: each character past 7 bits escaped as \uXXXX, which any JSON reader
// turns back into the same string. For what Windows PowerShell 5.1 writes -Encoding ASCII or reads through
// [Console]::In (the node's OEM code page), where UTF-8 past ASCII would not survive.

export const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
