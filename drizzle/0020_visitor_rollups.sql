ALTER TABLE `log_positions` ADD `visitors_from` text;--> statement-breakpoint
ALTER TABLE `stats` ADD `visitors` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stats_months` ADD `visitors` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stats_years` ADD `visitors` integer DEFAULT 0 NOT NULL;