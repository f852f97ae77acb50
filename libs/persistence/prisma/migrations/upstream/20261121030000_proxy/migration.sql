-- CreateTable
CREATE TABLE "upstream_identities" (
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "last_sign_in_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "upstream_identities_pkey" PRIMARY KEY ("issuer","subject")
);

-- CreateTable
CREATE TABLE "upstream_states" (
    "id" TEXT NOT NULL,
    "interaction" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "browser_binding" TEXT NOT NULL,
    "code_verifier" TEXT NOT NULL,
    "nonce" TEXT,
    "approved_scopes" TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "upstream_states_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "upstream_tokens" (
    "user_id" UUID NOT NULL,
    "issuer" TEXT NOT NULL,
    "access_token" TEXT NOT NULL,
    "refresh_token" TEXT,
    "scopes" TEXT[],
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "upstream_tokens_pkey" PRIMARY KEY ("user_id","issuer")
);

-- CreateIndex
CREATE INDEX "upstream_identities_user_id_idx" ON "upstream_identities"("user_id");

-- CreateIndex
CREATE INDEX "upstream_states_expires_at_idx" ON "upstream_states"("expires_at");
