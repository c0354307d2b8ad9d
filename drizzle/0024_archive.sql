CREATE TABLE `archive_dates` (
	`website_id` integer NOT NULL,
	`date` text NOT NULL,
	`key` text NOT NULL,
	`claim` text,
	`claimed_at` integer NOT NULL,
	`written_at` integer,
	`rows` integer,
	`bytes` integer,
	`sha256` text,
	`expired_at` integer,
	PRIMARY KEY(`website_id`, `date`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `archive_dates_key_unique` ON `archive_dates` (`key`);--> statement-breakpoint
CREATE INDEX `archive_dates_date_idx` ON `archive_dates` (`date`);--> statement-breakpoint
CREATE TABLE `archive_sites` (
	`website_id` integer PRIMARY KEY NOT NULL,
	`domain` text NOT NULL,
	`from_date` text NOT NULL,
	`next_date` text NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`manifest_version` integer DEFAULT 0 NOT NULL
);
