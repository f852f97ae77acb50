-- Moves a database that held every app's tables (as every Portcullis database did before each app had its own
-- schema) to the protected server's own. The other apps' tables are dropped when they are empty, as they are in a database only
-- this app used: the other apps kept their rows in their own databases. A table holding rows stops the migration,
-- and so the boot, naming it: that database is shared with another app, whose rows are not this app's to delete.
-- The other apps' migrations leave the history with their tables.
DO $$
DECLARE
  other_table text;
  has_rows boolean;
BEGIN
  FOREACH other_table IN ARRAY ARRAY['users', 'clients', 'login_sessions', 'pending_authorizations', 'consents', 'grants', 'authorization_codes', 'access_tokens', 'refresh_tokens', 'signing_keys', 'used_jwt_ids', 'security_events', 'upstream_identities', 'upstream_states', 'upstream_tokens'] LOOP
    IF to_regclass(quote_ident(other_table)) IS NOT NULL THEN
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', other_table) INTO has_rows;
      IF has_rows THEN
        RAISE EXCEPTION 'table % holds rows of another Portcullis app: this database is shared; give each app a database of its own (DATABASE_URL) and move those rows to the app they belong to first', other_table;
      END IF;
      EXECUTE format('DROP TABLE %I', other_table);
    END IF;
  END LOOP;
END $$;

DELETE FROM "_prisma_migrations" WHERE "migration_name" IN (
  '20261121000000_init',
  '20261121010000_authorization',
  '20261124000000_code_redirect_uri_sent',
  '20261124010000_client_resource_server',
  '20261124030000_client_last_used',
  '20261124040000_client_registration_token',
  '20261125020000_used_jwt_ids',
  '20261126000000_dpop',
  '20261127000000_refresh_token_replay',
  '20261127010000_security_events',
  '20261127030000_housekeeping_indexes',
  '20261128000000_signing_key_activation',
  '20261129000000_user_claims',
  '20261130000000_extension_attachments',
  '20261121030000_proxy',
  '20261125010000_upstream_state_without_scopes',
  '20261127020000_upstream_account_sign_in',
  '20261201000000_upstream_identity_provider',
  '20261202000000_upstream_token_vault'
);
