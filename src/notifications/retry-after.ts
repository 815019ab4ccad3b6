// Which answers a notification is tried again after, and how long the sink asked to be left alone.

/** 408, 429 and 5xx are worth another try (the sink is busy or down); any other 4xx says the request or its
 * credentials are wrong, and the same request would be refused again. */
export function worthRetrying(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
