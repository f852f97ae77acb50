/** The path of an endpoint under the issuer's path (`/login` for `https://as.example`, `/t/login` under `/t`). */
export function endpointPath(issuer: string, endpoint: string): string {
  return `${new URL(issuer).pathname.replace(/\/$/, '')}/${endpoint}`;
}
