export interface ApiResponse<Body = unknown> {
  status: number;
  headers: Headers;
  body: Body;
  text: string;
}

export interface ApiRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON unless `form` or `raw` is given. */
  json?: unknown;
  form?: Record<string, string>;
  raw?: string;
  query?: string;
}

/** A small HTTP client for end-to-end tests: returns status, headers and the decoded body. */
export function apiClient(baseUrl: string) {
  return async function call<Body = Record<string, unknown>>(path: string, request: ApiRequest = {}): Promise<ApiResponse<Body>> {
    const headers: Record<string, string> = { ...request.headers };
    let body: string | undefined;
    if (request.form) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    } else if (request.raw !== undefined) {
      body = request.raw;
    } else if (request.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(request.json);
    }
    const url = `${baseUrl}${path}${request.query ? `?${request.query}` : ''}`;
    const response = await fetch(url, { method: request.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
    const text = await response.text();
    let decoded: unknown = text;
    try {
      decoded = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the test sees the text
    }
    return { status: response.status, headers: response.headers, body: decoded as Body, text };
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
