import { type ComponentChildren, createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';

/**
 * Client-side routes under the dashboard's base path, with the History API (the server answers
 * index.html for any of them, so a reload or a shared link works). Links are real `<a href>`s:
 * they work with the keyboard, open in a new tab, and are intercepted only for a plain click.
 */

interface Router {
  basePath: string;
  /** The path below the base, e.g. `/runs/abc`. */
  path: string;
  /** The query string of the current URL, parsed. */
  query: URLSearchParams;
  navigate(to: string, options?: { replace?: boolean }): void;
}

const RouterContext = createContext<Router | undefined>(undefined);

export const useRouter = (): Router => {
  const router = useContext(RouterContext);
  if (!router) throw new Error('useRouter outside <RouterProvider>');
  return router;
};

const current = (basePath: string) => ({
  path: location.pathname.startsWith(basePath) ? location.pathname.slice(basePath.length) || '/' : '/',
  search: location.search,
});

export function RouterProvider({ basePath, children }: { basePath: string; children: ComponentChildren }) {
  const [where, setWhere] = useState(() => current(basePath));
  useEffect(() => {
    const onPop = () => setWhere(current(basePath));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, [basePath]);
  const navigate = (to: string, options: { replace?: boolean } = {}) => {
    history[options.replace ? 'replaceState' : 'pushState'](null, '', basePath + to);
    setWhere(current(basePath));
    scrollTo(0, 0);
  };
  const value: Router = { basePath, path: where.path, query: new URLSearchParams(where.search), navigate };
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export function Link({
  to,
  children,
  class: className,
  label,
}: {
  to: string;
  children: ComponentChildren;
  class?: string;
  /** The accessible name, when the visible text alone does not say where it goes. */
  label?: string;
}) {
  const { basePath, navigate } = useRouter();
  return (
    <a
      href={basePath + to}
      class={className}
      aria-label={label}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** Matches `path` against a pattern such as `/runs/:id`; the params, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  // Trailing slashes do not count: `/dashboard/` is `/dashboard`, and `/runs/` is `/runs`.
  const want = pattern.replace(/\/+$/, '').split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const h = have[i]!;
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(h);
    else if (w !== h) return undefined;
  }
  return params;
}
