-- AlterTable
ALTER TABLE "authorization_codes" ADD COLUMN     "answer" TEXT,
ADD COLUMN     "interaction_id" TEXT,
ADD COLUMN     "replay" TEXT;

-- CreateIndex
CREATE INDEX "authorization_codes_interaction_id_idx" ON "authorization_codes"("interaction_id");
