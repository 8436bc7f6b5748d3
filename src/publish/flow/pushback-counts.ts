/** How the service pushed back during a run, in requests. */
export interface PushbackCounts {
  /** 429 answers. */
  throttled: number;
  /** 503 answers, and 502/504 from a proxy in front of the service. */
  overloaded: number;
  /** Requests with no answer in time. */
  timeouts: number;
  /** Requests that could not reach the service (refused, DNS, TLS, connect timeout). */
  unreachable: number;
}
