/** An error as a service answers it: its status, its own envelope, and whether to log it as a fault. */
export interface ErrorResponse<Body = unknown> {
  status: number;
  body: Body;
  headers?: Record<string, string>;
  /** Unexpected errors are logged with their stack; expected refusals are not. */
  unexpected: boolean;
}
