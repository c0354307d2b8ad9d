CREATE TABLE `salts` (
	`date` text PRIMARY KEY NOT NULL,
	`salt` text NOT NULL,
	`created_at` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `visitors` (
	`hash` text PRIMARY KEY NOT NULL,
	`last_seen_at` integer NOT NULL
) WITHOUT ROWID;
