-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "resource_server" TEXT;
