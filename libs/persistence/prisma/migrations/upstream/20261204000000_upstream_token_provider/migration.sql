-- The token vault records which provider a connection named when its tokens were stored, so that tokens of a
-- connection since pointed at another provider are neither used nor sent to it. An expand migration: a nullable
-- column the previous release neither reads nor writes (its rows keep it null, which counts as the same provider).
ALTER TABLE "upstream_tokens" ADD COLUMN "provider" TEXT;
