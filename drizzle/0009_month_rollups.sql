CREATE TABLE `compacted_months` (
	`website_id` integer PRIMARY KEY NOT NULL,
	`through` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stats_months` (
	`website_id` integer NOT NULL,
	`name` text NOT NULL,
	`month` text NOT NULL,
	`value` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`website_id`, `name`, `month`, `value`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `stats_years` (
	`website_id` integer NOT NULL,
	`name` text NOT NULL,
	`year` text NOT NULL,
	`value` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`website_id`, `name`, `year`, `value`)
) WITHOUT ROWID;
