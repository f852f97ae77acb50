-- DropIndex
DROP INDEX "notes_owner_created_at_idx";

-- AlterTable
ALTER TABLE "notes" ADD COLUMN     "issuer" TEXT;

-- CreateIndex
CREATE INDEX "notes_issuer_owner_created_at_idx" ON "notes"("issuer", "owner", "created_at");
