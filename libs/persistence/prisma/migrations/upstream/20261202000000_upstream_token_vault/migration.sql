-- The proxy's upstream tokens become a vault of connections: one row per user and connection (`upstream` for the
-- provider people sign in with), which can need the user again (`reconnect_required_at`, its tokens then gone) and
-- records its last use. A user kept one row per issuer before; only the newest stays, as the `upstream` connection
-- (an older one is of an upstream the proxy no longer signs in with).
DELETE FROM "upstream_tokens" AS "older"
USING "upstream_tokens" AS "newer"
WHERE "older"."user_id" = "newer"."user_id"
  AND ("older"."updated_at", "older"."issuer") < ("newer"."updated_at", "newer"."issuer");

ALTER TABLE "upstream_tokens" DROP CONSTRAINT "upstream_tokens_pkey",
ADD COLUMN     "connection" TEXT NOT NULL DEFAULT 'upstream',
ADD COLUMN     "last_used_at" TIMESTAMPTZ(3),
ADD COLUMN     "reconnect_required_at" TIMESTAMPTZ(3),
ALTER COLUMN "access_token" DROP NOT NULL,
ADD CONSTRAINT "upstream_tokens_pkey" PRIMARY KEY ("user_id", "connection");
