/**
 * What every part of the console shares: the admin API client (the token from the URL's
 * fragment as a bearer token), topic paths, polling, the formats of times and counts, and the
 * small pieces every view shows (an error in place, a health state).
 */
import htm from 'htm';
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export const html = htm.bind(h);

export const TOKEN_KEY = 'gridwire.adminToken';
/** How often the counters are read, and everything else (ms). */
export const COUNTERS_EVERY_MS = 2000;
export const REFRESH_EVERY_MS = 5000;

/** The admin token from the fragment (then kept and taken out of the address bar), or the kept one. */
export function takeToken() {
  const fromUrl = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromUrl !== null && fromUrl !== '') {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** An API answer other than 2xx, with the API's own message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * A client of the admin API carrying `token`; `onRefused` is called when the token is refused
 * (401). Answers are JSON; an error answer throws its `error.message` (or `message`).
 */
export function apiClient(token, onRefused) {
  return async (method, path, body) => {
    const response = await fetch(path, {
      method,
      cache: 'no-store',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let json;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      if (response.status === 401) onRefused();
      const message = json?.error?.message ?? json?.message ?? (text.slice(0, 300) || response.statusText);
      throw new ApiError(response.status, `HTTP ${response.status}: ${message}`);
    }
    return json;
  };
}

export const segment = encodeURIComponent;

/** The admin path of a topic: a classic topic, or a namespace's. */
export const topicPath = (topic) =>
  topic.namespace === undefined
    ? `/admin/topics/${segment(topic.name)}`
    : `/admin/namespaces/${segment(topic.namespace)}/topics/${segment(topic.name)}`;

export const topicLabel = (topic) =>
  topic.namespace === undefined ? topic.name : `${topic.namespace}/${topic.name}`;

/**
 * Calls `load` now and again `everyMs` after each answer, while the component is mounted (or
 * until `key` changes, which starts over). `refresh()` loads again at once.
 */
export function usePolling(load, everyMs, key) {
  const [state, setState] = useState({ data: undefined, error: undefined, loaded: false });
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  // A new key or round starts the loop over.
  useEffect(() => {
    let stopped = false;
    let timer;
    const run = async () => {
      try {
        const data = await loadRef.current();
        if (!stopped) setState({ data, error: undefined, loaded: true });
      } catch (error) {
        if (!stopped) setState((previous) => ({ ...previous, error: error.message, loaded: true }));
      }
      if (!stopped) timer = setTimeout(run, everyMs);
    };
    run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [key, round, everyMs]);
  return { ...state, refresh: () => setRound((value) => value + 1) };
}

export const time = (iso) => (iso === undefined || iso === null ? '–' : new Date(iso).toLocaleString());
export const clock = (iso) => (iso === undefined || iso === null ? '–' : new Date(iso).toLocaleTimeString());
export const plural = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`;

export function ErrorText({ message }) {
  return message === undefined ? null : html`<p class="error" role="alert">${message}</p>`;
}

export function StateBadge({ state }) {
  const name = state ?? 'Unknown';
  return html`<span class=${`badge state-${name.toLowerCase()}`} data-testid="health-state">${name}</span>`;
}
