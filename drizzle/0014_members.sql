CREATE TABLE `members` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`website_id` integer NOT NULL,
	`owner_id` integer,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	`accepted_at` integer,
	FOREIGN KEY (`website_id`) REFERENCES `websites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `members_token_unique` ON `members` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `members_person_unique` ON `members` (`website_id`,`owner_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `members_email_unique` ON `members` (`website_id`,`email`);--> statement-breakpoint
CREATE INDEX `members_owner_idx` ON `members` (`owner_id`);--> statement-breakpoint
CREATE INDEX `members_expires_idx` ON `members` (`expires_at`);