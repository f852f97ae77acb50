-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "last_used_at" TIMESTAMPTZ(3);

-- Backfill: a client's last use is its newest grant.
UPDATE "clients" SET "last_used_at" = (SELECT max("created_at") FROM "grants" WHERE "grants"."client_id" = "clients"."client_id");
