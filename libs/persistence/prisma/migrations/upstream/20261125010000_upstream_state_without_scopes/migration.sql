-- AlterTable
ALTER TABLE "upstream_states" DROP COLUMN "approved_scopes";
