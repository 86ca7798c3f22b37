/**
 * Whether the page can reach svc: once a request gets no answer, the API's
 * health is asked again and again, further apart each time, until it
 * answers; then the page reads what it could not.
 * @module
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ApiClient } from "./api_client.ts";
import { retryDelay } from "./backoff.ts";

/** What {@linkcode useConnection} gives. */
export interface Connection {
  /** Whether svc could not be reached and has not answered since. */
  offline: boolean;
  /** Seconds until the next try while offline; 0 while a try runs. */
  retryIn: number;
  /** Tries at once. */
  tryNow(): void;
}

/**
 * Watches the API's reachability: a request without an answer makes the
 * page offline, a health check with backoff makes it online again, and
 * `onBack` runs then.
 */
export function useConnection(api: ApiClient, onBack: () => void): Connection {
  const [offline, setOffline] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [nextAt, setNextAt] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const [checking, setChecking] = useState(false);
  const back = useRef(onBack);
  back.current = onBack;

  useEffect(() =>
    api.watchUnreachable(() =>
      setOffline((was) => {
        if (!was) {
          setAttempt(0);
          setNextAt(Date.now() + retryDelay(0));
        }
        return true;
      })
    ), [api]);

  async function check() {
    setChecking(true);
    const up = await api.health();
    setChecking(false);
    if (up) {
      setOffline(false);
      setAttempt(0);
      back.current();
    } else {
      setAttempt((tried) => {
        setNextAt(Date.now() + retryDelay(tried + 1));
        return tried + 1;
      });
    }
  }

  // A tick a second while offline: the countdown shows, and the try starts when it is due.
  useEffect(() => {
    if (!offline || checking) return;
    const wait = Math.max(0, nextAt - Date.now());
    const timer = setTimeout(() => {
      setNow(Date.now());
      if (Date.now() >= nextAt) void check();
    }, Math.min(1000, wait));
    return () => clearTimeout(timer);
  }, [offline, checking, nextAt, now, attempt]);

  return useMemo(() => ({
    offline,
    retryIn: checking ? 0 : Math.max(0, Math.ceil((nextAt - now) / 1000)),
    tryNow() {
      if (!checking) void check();
    },
  }), [offline, checking, nextAt, now]);
}
