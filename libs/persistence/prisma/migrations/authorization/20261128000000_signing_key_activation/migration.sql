-- AlterTable: a signing key is published before it signs (staged rotation). Every existing key signed from its
-- creation.
ALTER TABLE "signing_keys" ADD COLUMN "activates_at" TIMESTAMPTZ(3);
UPDATE "signing_keys" SET "activates_at" = "created_at";
ALTER TABLE "signing_keys" ALTER COLUMN "activates_at" SET NOT NULL;
