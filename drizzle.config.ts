import { defineConfig } from 'drizzle-kit';

// Migrations are generated from src/db/schema.ts, sharing-schema.ts and archive-schema.ts and
// applied by wrangler (`wrangler d1 migrations apply`), which reads them from `drizzle/` (see
// wrangler.toml).
export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/db/schema.ts', './src/db/sharing-schema.ts', './src/db/archive-schema.ts'],
  out: './drizzle',
});
