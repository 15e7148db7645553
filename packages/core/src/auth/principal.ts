/** Who is calling: resolved from an API key or by the host's own `authenticate` hook. */
export interface Principal {
  type: 'user' | 'service_account';
  uid: string;
  display_name?: string;
  email?: string;
  photo_url?: string;
  /** Every read and write is scoped to this team. */
  team_uid: string;
  /** Granted permissions, such as `manage_factory`. */
  permissions?: readonly string[];
  /**
   * The scopes of the API key that authenticated the request (keys/scopes.ts); absent for a key
   * minted before scopes existed and for a host's own principals, which keep their old powers.
   */
  scopes?: readonly string[];
}

export const PERMISSIONS = { manageFactory: 'manage_factory' } as const;

export const hasPermission = (p: Principal, permission: string): boolean => p.permissions?.includes(permission) ?? false;
