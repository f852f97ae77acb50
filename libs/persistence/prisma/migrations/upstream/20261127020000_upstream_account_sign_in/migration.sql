-- AlterTable
ALTER TABLE "upstream_states" ADD COLUMN     "purpose" TEXT NOT NULL DEFAULT 'authorization',
ALTER COLUMN "interaction" DROP NOT NULL,
ALTER COLUMN "client_id" DROP NOT NULL;
