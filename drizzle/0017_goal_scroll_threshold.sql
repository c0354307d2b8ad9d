DROP INDEX `goals_page_unique`;--> statement-breakpoint
ALTER TABLE `goals` ADD `scroll_threshold` integer DEFAULT -1 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `goals_page_unique` ON `goals` (`website_id`,`page_path`,`scroll_threshold`);