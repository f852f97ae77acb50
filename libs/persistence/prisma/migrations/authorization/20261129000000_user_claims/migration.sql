-- AlterTable: the claims the `profile` and `email` scopes grant (OpenID Connect Core 5.4). Existing users have none.
ALTER TABLE "users" ADD COLUMN     "name" TEXT,
ADD COLUMN     "email" TEXT,
ADD COLUMN     "email_verified" BOOLEAN NOT NULL DEFAULT false;
