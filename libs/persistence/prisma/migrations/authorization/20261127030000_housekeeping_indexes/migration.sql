-- CreateIndex
CREATE INDEX "login_sessions_expires_at_idx" ON "login_sessions"("expires_at");

-- CreateIndex
CREATE INDEX "grants_client_id_idx" ON "grants"("client_id");

-- CreateIndex
CREATE INDEX "grants_absolute_expires_at_idx" ON "grants"("absolute_expires_at");

-- CreateIndex
CREATE INDEX "authorization_codes_expires_at_idx" ON "authorization_codes"("expires_at");

-- CreateIndex
CREATE INDEX "access_tokens_client_id_idx" ON "access_tokens"("client_id");
