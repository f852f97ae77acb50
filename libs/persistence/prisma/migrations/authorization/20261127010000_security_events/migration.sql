-- CreateTable
CREATE TABLE "security_events" (
    "id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "type" TEXT NOT NULL,
    "user_id" TEXT,
    "client_id" TEXT,
    "ip" TEXT,
    "request_id" TEXT,
    "detail" JSONB,

    CONSTRAINT "security_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "security_events_at_idx" ON "security_events"("at");

-- CreateIndex
CREATE INDEX "security_events_type_at_idx" ON "security_events"("type", "at");
