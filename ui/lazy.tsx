/**
 * Components loaded with their first use, each a chunk of its own, so that
 * the page's first load holds only what the first screen needs.
 * @module
 */
import { type ComponentType, h, type JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { describeError } from "./api_client.ts";
import { Icon } from "./Icons.tsx";

/**
 * A component that loads `load`'s component when it is first rendered (and
 * renders nothing until then; the failure in words, over the page, if its
 * chunk cannot be loaded), then renders it with its props.
 */
export function lazy<P extends object>(
  load: () => Promise<ComponentType<P>>,
): (props: P) => JSX.Element | null {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  return function Lazy(props: P): JSX.Element | null {
    const [component, setComponent] = useState(() => loaded);
    const [error, setError] = useState<string | undefined>(undefined);
    useEffect(() => {
      if (component) return;
      loading ??= load().then((found) => loaded = found).finally(() => {
        // A failed load is tried again at the next use.
        if (!loaded) loading = undefined;
      });
      loading.then((found) => setComponent(() => found), (failure) => {
        setError(describeError(failure));
      });
    }, []);
    if (component) return h(component, props);
    if (!error) return null;
    return (
      <p class="notice lazy-failure" role="alert" title={error}>
        <Icon name="alert" />{" "}
        This part of svc cannot be loaded from the server. Check the connection, then reload the
        page
      </p>
    );
  };
}
