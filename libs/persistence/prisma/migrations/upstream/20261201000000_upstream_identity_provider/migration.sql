-- AlterTable: the provider preset (`UPSTREAM_PROVIDER`) joins the key of an upstream identity, beside the issuer (or
-- the API base standing for it) and the subject (OpenID Connect Core 5.7: only an issuer and a subject together
-- name a person; a preset without an issuer names its subjects within its own). Identities signed in before presets
-- came through OpenID Connect or RFC 8414 discovery: `oidc`.
ALTER TABLE "upstream_identities" DROP CONSTRAINT "upstream_identities_pkey",
ADD COLUMN     "provider" TEXT NOT NULL DEFAULT 'oidc',
ADD CONSTRAINT "upstream_identities_pkey" PRIMARY KEY ("provider", "issuer", "subject");

-- Every new identity names its provider.
ALTER TABLE "upstream_identities" ALTER COLUMN "provider" DROP DEFAULT;
