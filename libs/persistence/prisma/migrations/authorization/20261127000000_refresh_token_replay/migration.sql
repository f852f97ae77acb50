-- AlterTable
ALTER TABLE "refresh_tokens" ADD COLUMN     "replay" TEXT,
ADD COLUMN     "successor_hash" TEXT;
