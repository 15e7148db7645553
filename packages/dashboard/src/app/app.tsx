import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiContext } from './api-context.js';
import type { AppConfig } from './config.js';
import { AuditPage } from './pages/audit-page.js';
import { AutomationPage } from './pages/automation-page.js';
import { CallbackPage, CallbacksPage } from './pages/callbacks-page.js';
import { DeliveryPage } from './pages/delivery-page.js';
import { FactoriesPage } from './pages/factories-page.js';
import { FactoryPage } from './pages/factory-page.js';
import { KeysPage } from './pages/keys-page.js';
import { NotFoundPage } from './pages/not-found-page.js';
import { OverviewPage } from './pages/overview-page.js';
import { RunPage } from './pages/run-page.js';
import { RunsPage } from './pages/runs-page.js';
import { SchedulesPage } from './pages/schedules-page.js';
import { SecretsPage } from './pages/secrets-page.js';
import { SignIn } from './pages/sign-in.js';
import { WebhookPage } from './pages/webhook-page.js';
import { WorkersPage } from './pages/workers-page.js';
import { Link, match, RouterProvider, useRouter } from './router.js';
import { clientFor, forgetKey, hostKey, storedKey, storeKey } from './session.js';

/** The app: signed out, the sign-in form; signed in, the navigation and the page of the URL. */
export function App({ config }: { config: AppConfig }) {
  const [apiKey, setApiKey] = useState<string | undefined>(storedKey);
  const [checkingHost, setCheckingHost] = useState(config.auth === 'host' && !storedKey());
  useEffect(() => {
    if (!checkingHost) return;
    void hostKey(config).then((key) => {
      if (key) setApiKey(key);
      setCheckingHost(false);
    });
  }, [checkingHost, config]);
  const client = useMemo(() => (apiKey ? clientFor(config, apiKey) : undefined), [apiKey, config]);

  return (
    <RouterProvider basePath={config.basePath}>
      {checkingHost ? (
        <main id="main">
          <p role="status">Signing in…</p>
        </main>
      ) : client ? (
        <ApiContext.Provider value={client}>
          <Shell
            onSignOut={() => {
              forgetKey();
              setApiKey(undefined);
            }}
          />
        </ApiContext.Provider>
      ) : (
        <SignIn
          config={config}
          onSignedIn={(key) => {
            storeKey(key);
            setApiKey(key);
          }}
        />
      )}
    </RouterProvider>
  );
}

const NAV = [
  { to: '/', label: 'Overview' },
  { to: '/runs', label: 'Runs' },
  { to: '/schedules', label: 'Schedules' },
  { to: '/factories', label: 'Factories' },
  { to: '/secrets', label: 'Team secrets' },
  { to: '/callbacks', label: 'Callbacks' },
  { to: '/workers', label: 'Workers' },
  { to: '/audit', label: 'Audit log' },
  { to: '/keys', label: 'API keys' },
];

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const { path } = useRouter();
  // A new page moves focus to its heading, so a keyboard or screen-reader user starts there.
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [path]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">agentrun</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <Link to={item.to} class={isCurrent(item.to, path) ? 'current' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Page path={path} />
      </main>
    </>
  );
}

/** Whether a nav entry is the page shown: the overview at `/` only, any other with the pages below it. */
const isCurrent = (to: string, path: string): boolean => (to === '/' ? path.replace(/\/+$/, '') === '' : path.startsWith(to));

/** The pages by path pattern (router.tsx `match`), first match wins. */
const ROUTES: [string, (p: Record<string, string>) => preact.JSX.Element][] = [
  ['/', () => <OverviewPage />],
  ['/runs', () => <RunsPage />],
  ['/runs/:runId', (p) => <RunPage runId={p.runId!} />],
  ['/factories', () => <FactoriesPage />],
  ['/factories/:factoryUid', (p) => <FactoryPage factoryUid={p.factoryUid!} />],
  ['/factories/:factoryUid/webhooks/:webhookUid', (p) => <WebhookPage factoryUid={p.factoryUid!} webhookUid={p.webhookUid!} />],
  [
    '/factories/:factoryUid/webhooks/:webhookUid/deliveries/:deliveryId',
    (p) => <DeliveryPage factoryUid={p.factoryUid!} webhookUid={p.webhookUid!} deliveryId={p.deliveryId!} />,
  ],
  [
    '/factories/:factoryUid/automations/:automationId',
    (p) => <AutomationPage factoryUid={p.factoryUid!} automationId={p.automationId === 'new' ? undefined : p.automationId!} />,
  ],
  ['/schedules', () => <SchedulesPage />],
  ['/secrets', () => <SecretsPage />],
  ['/callbacks', () => <CallbacksPage />],
  ['/callbacks/:callbackId', (p) => <CallbackPage callbackId={p.callbackId!} />],
  ['/workers', () => <WorkersPage />],
  ['/audit', () => <AuditPage />],
  ['/keys', () => <KeysPage />],
];

function Page({ path }: { path: string }) {
  for (const [pattern, page] of ROUTES) {
    const params = match(pattern, path);
    if (params) return page(params);
  }
  return <NotFoundPage />;
}
