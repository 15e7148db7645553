/**
 * Definition sets (docs/definitions.md): per factory, what the last apply of its definition files
 * left (which webhook and automation each file became), and the version every apply checks and
 * bumps in the transaction that writes it, so two concurrent applies cannot both write.
 */
export const up = `
CREATE TABLE definition_sets (
  team_uid     text NOT NULL,
  factory_uid  text COLLATE "C" NOT NULL,
  version      integer NOT NULL CHECK (version > 0),
  applied_at   timestamptz(3) NOT NULL,
  -- { webhooks: [{ name, uid, secretName, secretUpdatedAt }], automations: [{ name, id }] }
  state        jsonb NOT NULL,
  PRIMARY KEY (team_uid, factory_uid)
);
`;
