-- CreateTable
CREATE TABLE "used_jwt_ids" (
    "issuer" TEXT NOT NULL,
    "jti" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "used_jwt_ids_pkey" PRIMARY KEY ("issuer","jti")
);

-- CreateIndex
CREATE INDEX "used_jwt_ids_expires_at_idx" ON "used_jwt_ids"("expires_at");
