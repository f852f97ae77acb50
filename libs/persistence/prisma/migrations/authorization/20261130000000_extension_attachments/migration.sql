-- AlterTable: how the user authenticated (RFC 8176 `amr` values) for extensions' token claims; earlier sessions and
-- grants do not know, and say so with an empty list.
ALTER TABLE "login_sessions" ADD COLUMN     "amr" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable: the authorization request and what extensions' checks attached to it, kept with the grant so that its
-- tokens, refreshes included, carry the same extension claims. Earlier grants have neither.
ALTER TABLE "grants" ADD COLUMN     "amr" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "attachments" JSONB,
ADD COLUMN     "authorization_request" JSONB;
