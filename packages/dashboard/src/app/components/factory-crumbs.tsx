import { useClient } from '../api-context.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';

/** `Factories / <factory name> /`: the way back from a factory's webhook or automation page. */
export function FactoryCrumbs({ factoryUid }: { factoryUid: string }) {
  const client = useClient();
  const factory = useLoad(() => client.factories.get(factoryUid), [factoryUid]);
  return (
    <p class="crumbs">
      <Link to="/factories">Factories</Link> /{' '}
      <Link to={`/factories/${encodeURIComponent(factoryUid)}`}>{factory.data?.name ?? 'Factory'}</Link> /
    </p>
  );
}
