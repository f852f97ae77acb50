-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "registration_access_token_hash" TEXT;
