CREATE TABLE `imported_stats` (
	`website_id` integer NOT NULL,
	`name` text NOT NULL,
	`date` text NOT NULL,
	`value` text NOT NULL,
	`import_id` integer NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`website_id`, `name`, `date`, `value`, `import_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`website_id` integer NOT NULL,
	`source` text NOT NULL,
	`from_date` text NOT NULL,
	`to_date` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	`statistics` text DEFAULT '' NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`website_id`) REFERENCES `websites`(`id`) ON UPDATE no action ON DELETE cascade
);
