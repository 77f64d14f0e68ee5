/**
 * The console's address as the local stack prints it: the page the management handler serves at
 * `/console` (`shared/management/console-routes.ts`), with a session token in the fragment.
 */
import { CONSOLE_PATH, PORTAL_PATH } from '../shared/config/routes';

export { CONSOLE_PATH, PORTAL_PATH };

/**
 * The page's URL with a session token in its fragment: a browser keeps the fragment to itself,
 * so the token never reaches a server or its logs.
 */
export const consoleUrl = (apiUrl: string, token: string, path: string = CONSOLE_PATH): string =>
  `${apiUrl.replace(/\/+$/, '')}${path}#token=${encodeURIComponent(token)}`;
