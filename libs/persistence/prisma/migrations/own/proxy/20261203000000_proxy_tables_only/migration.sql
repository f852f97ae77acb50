-- Moves a database that held every app's tables (as every Portcullis database did before each app had its own
-- schema) to the proxy's own. The other apps' tables are dropped when they are empty, as they are in a database only
-- this app used: the other apps kept their rows in their own databases. A table holding rows stops the migration,
-- and so the boot, naming it: that database is shared with another app, whose rows are not this app's to delete.
-- The other apps' migrations leave the history with their tables.
DO $$
DECLARE
  other_table text;
  has_rows boolean;
BEGIN
  FOREACH other_table IN ARRAY ARRAY['notes'] LOOP
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
  '20261121020000_notes',
  '20261124020000_note_owner_issuer'
);
