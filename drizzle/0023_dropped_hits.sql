CREATE TABLE `dropped_hits` (
	`website_id` integer NOT NULL,
	`date` text NOT NULL,
	`reason` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`kind` text DEFAULT '' NOT NULL,
	`hits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`website_id`, `date`, `reason`, `name`, `kind`)
) WITHOUT ROWID;
