import { Link } from '../router.js';

export function NotFoundPage() {
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        Nothing lives at this address. Go to the <Link to="/runs">runs</Link>.
      </p>
    </>
  );
}
