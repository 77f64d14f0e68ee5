/**
 * Where requests to endpoints leave from: an HTTP proxy they may tunnel through
 * (`ENV.egressProxyUrl`), checked the same way wherever it is given (the functions' start, the
 * CDK prop, `gridwire start --egress-proxy`).
 */

/**
 * An egress proxy's URL: `http://host:port`, user credentials allowed (sent as
 * `Proxy-Authorization`), no path beyond `/`; refused at start-up otherwise, naming the variable.
 */
export function checkProxyUrl(name: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name}: '${value}' is not a URL; give the proxy as http://host:port`);
  }
  if (url.protocol !== 'http:') {
    throw new Error(`${name}: the proxy is reached over plain HTTP (http://host:port); got ${url.protocol}`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw new Error(`${name}: give the proxy as http://host:port, without a path, query or fragment`);
  }
}
