// The simulated cluster network: HTTP between simulated hosts (Keystone on the controller, the Contrail
// config API), by address and port. No real socket: a request reaches the model of the host behind it.

export interface HttpRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a host serves on a port right now (a service runs only while its container does). */
export interface HttpEndpoint {
  serve(port: number, request: HttpRequest): HttpResponse | undefined;
}

export type HttpOutcome = HttpResponse | { error: 'refused' | 'unreachable' };

export class SimNetwork {
  readonly #hosts = new Map<string, HttpEndpoint>();

  attach(address: string, endpoint: HttpEndpoint): void {
    this.#hosts.set(address, endpoint);
  }

  detach(address: string): void {
    this.#hosts.delete(address);
  }

  request(url: string, request: Omit<HttpRequest, 'path'>): HttpOutcome {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { error: 'unreachable' };
    }
    const endpoint = this.#hosts.get(parsed.hostname);
    if (!endpoint) return { error: 'unreachable' };
    const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
    const response = endpoint.serve(port, { ...request, path: parsed.pathname });
    return response ?? { error: 'refused' };
  }
}
