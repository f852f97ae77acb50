-- AlterTable
ALTER TABLE "authorization_codes" ADD COLUMN     "redirect_uri_sent" BOOLEAN NOT NULL DEFAULT true;
