-- AlterTable
ALTER TABLE "authorization_codes" ADD COLUMN     "confirmation" JSONB;

-- AlterTable
ALTER TABLE "refresh_tokens" ADD COLUMN     "confirmation" JSONB;
